//! PCN marking states and the RFC 6660 "3-in-1" encoding in the ECN field.
//!
//! For a PCN-compatible DSCP the two ECN bits carry the PCN state (RFC 6660
//! section 3, Figure 1):
//!
//! | ECN bits | RFC 3168 name | PCN meaning        | 3sM name |
//! |----------|---------------|--------------------|----------|
//! | `00`     | Not-ECT       | not-PCN            | (none)   |
//! | `10`     | ECT(0)        | not-marked (NM)    | NP       |
//! | `01`     | ECT(1)        | threshold-marked (ThM) | AS   |
//! | `11`     | CE            | excess-traffic-marked (ETM) | ET |
//!
//! The ECN field is the two low-order bits of the IPv4 TOS byte and of the IPv6
//! traffic-class byte; the DSCP is the six high-order bits.
//!
//! Re-marking (RFC 6660 sections 5.2.1 and 5.2.2) only ever raises severity,
//! NM < ThM < ETM, and never touches a not-PCN packet nor turns a PCN packet into
//! a not-PCN one. [`PcnMark::remark`] is that rule.

/// The PCN state of a packet with a PCN-compatible DSCP (RFC 6660 section 3).
///
/// The discriminant is the ECN-field value that encodes the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum PcnMark {
    /// `00`: not a PCN packet; never metered or marked by this crate.
    NotPcn = 0b00,
    /// `10`: not-marked (NM; NP in 3sM).
    Nm = 0b10,
    /// `01`: threshold-marked (ThM; admission-stop, AS, in 3sM).
    Thm = 0b01,
    /// `11`: excess-traffic-marked (ETM; ET in 3sM).
    Etm = 0b11,
}

/// The three states of three-state PCN marking (3sM, draft-babiarz-pcn-explicit-marking-01 section 1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum ThreeState {
    /// NP: not marked (RFC 6660 NM).
    Np,
    /// AS: admission-stop (RFC 6660 ThM).
    As,
    /// ET: excess traffic (RFC 6660 ETM).
    Et,
}

impl From<ThreeState> for PcnMark {
    #[inline]
    fn from(s: ThreeState) -> PcnMark {
        match s {
            ThreeState::Np => PcnMark::Nm,
            ThreeState::As => PcnMark::Thm,
            ThreeState::Et => PcnMark::Etm,
        }
    }
}

impl PcnMark {
    /// The state encoded by the two low bits of `ecn` (higher bits are ignored).
    #[inline]
    #[must_use]
    pub const fn from_ecn(ecn: u8) -> PcnMark {
        match ecn & 0b11 {
            0b00 => PcnMark::NotPcn,
            0b10 => PcnMark::Nm,
            0b01 => PcnMark::Thm,
            _ => PcnMark::Etm,
        }
    }

    /// The two-bit ECN-field value that encodes this state.
    #[inline]
    #[must_use]
    pub const fn ecn(self) -> u8 {
        self as u8
    }

    /// True for the three PCN states (anything but not-PCN).
    #[inline]
    #[must_use]
    pub const fn is_pcn(self) -> bool {
        !matches!(self, PcnMark::NotPcn)
    }

    /// Severity rank: not-PCN and NM 0, ThM 1, ETM 2.
    #[inline]
    #[must_use]
    pub const fn severity(self) -> u8 {
        match self {
            PcnMark::NotPcn | PcnMark::Nm => 0,
            PcnMark::Thm => 1,
            PcnMark::Etm => 2,
        }
    }

    /// The state after a meter indicated `indicated` for a packet currently in
    /// state `self` (RFC 6660 sections 5.2.1-5.2.2): not-PCN stays not-PCN,
    /// otherwise the more severe of the two (ETM takes precedence over ThM).
    /// Passing [`PcnMark::NotPcn`] or [`PcnMark::Nm`] as `indicated` changes nothing.
    #[inline]
    #[must_use]
    pub const fn remark(self, indicated: PcnMark) -> PcnMark {
        if !self.is_pcn() || indicated.severity() <= self.severity() {
            self
        } else {
            indicated
        }
    }

    /// The 3sM name of this state, `None` for not-PCN.
    #[inline]
    #[must_use]
    pub const fn three_state(self) -> Option<ThreeState> {
        match self {
            PcnMark::NotPcn => None,
            PcnMark::Nm => Some(ThreeState::Np),
            PcnMark::Thm => Some(ThreeState::As),
            PcnMark::Etm => Some(ThreeState::Et),
        }
    }
}

/// The DSCP (six high bits) of a TOS / traffic-class byte.
#[inline]
#[must_use]
pub const fn dscp_of(tos: u8) -> u8 {
    tos >> 2
}

/// The ECN field (two low bits) of a TOS / traffic-class byte.
#[inline]
#[must_use]
pub const fn ecn_of(tos: u8) -> u8 {
    tos & 0b11
}

/// The set of DSCPs a PCN-domain treats as PCN-compatible (RFC 6660 section 3),
/// as a 64-bit mask: bit `d` set means DSCP `d` is PCN-compatible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct PcnDscps(u64);

impl PcnDscps {
    /// No PCN-compatible DSCP.
    pub const NONE: PcnDscps = PcnDscps(0);

    /// The set holding DSCP `dscp` only (values above 63 give the empty set).
    #[must_use]
    pub const fn single(dscp: u8) -> PcnDscps {
        PcnDscps::NONE.with(dscp)
    }

    /// This set plus DSCP `dscp` (values above 63 are ignored).
    #[must_use]
    pub const fn with(self, dscp: u8) -> PcnDscps {
        if dscp < 64 {
            PcnDscps(self.0 | (1u64 << dscp))
        } else {
            self
        }
    }

    /// The raw mask.
    #[must_use]
    pub const fn mask(self) -> u64 {
        self.0
    }

    /// True if `dscp` is PCN-compatible.
    #[inline]
    #[must_use]
    pub const fn contains(self, dscp: u8) -> bool {
        dscp < 64 && (self.0 >> dscp) & 1 == 1
    }

    /// The PCN state of a packet with this TOS / traffic-class byte, or `None`
    /// if its DSCP is not PCN-compatible (then the ECN field has its RFC 3168
    /// meaning and PCN must not touch it).
    #[inline]
    #[must_use]
    pub const fn decode_tos(self, tos: u8) -> Option<PcnMark> {
        if self.contains(dscp_of(tos)) {
            Some(PcnMark::from_ecn(tos))
        } else {
            None
        }
    }

    /// The TOS / traffic-class byte after a meter indicated `indicated`: the
    /// ECN field is re-marked by [`PcnMark::remark`] if the DSCP is
    /// PCN-compatible; otherwise the byte is returned unchanged. The DSCP never
    /// changes.
    #[inline]
    #[must_use]
    pub const fn remark_tos(self, tos: u8, indicated: PcnMark) -> u8 {
        match self.decode_tos(tos) {
            Some(m) => (tos & !0b11) | m.remark(indicated).ecn(),
            None => tos,
        }
    }
}

/// Re-marks a bare two-bit ECN field (of a packet already known to carry a
/// PCN-compatible DSCP): [`PcnMark::remark`] on the decoded state. Bits above the
/// two low ones are returned unchanged.
#[inline]
#[must_use]
pub const fn remark_ecn(ecn: u8, indicated: PcnMark) -> u8 {
    (ecn & !0b11) | PcnMark::from_ecn(ecn).remark(indicated).ecn()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [PcnMark; 4] = [PcnMark::NotPcn, PcnMark::Nm, PcnMark::Thm, PcnMark::Etm];

    #[test]
    fn rfc6660_figure_1() {
        assert_eq!(PcnMark::from_ecn(0b00), PcnMark::NotPcn);
        assert_eq!(PcnMark::from_ecn(0b10), PcnMark::Nm);
        assert_eq!(PcnMark::from_ecn(0b01), PcnMark::Thm);
        assert_eq!(PcnMark::from_ecn(0b11), PcnMark::Etm);
        for m in ALL {
            assert_eq!(PcnMark::from_ecn(m.ecn()), m);
        }
        assert_eq!(PcnMark::from(ThreeState::Np), PcnMark::Nm);
        assert_eq!(PcnMark::from(ThreeState::As), PcnMark::Thm);
        assert_eq!(PcnMark::from(ThreeState::Et), PcnMark::Etm);
        for s in [ThreeState::Np, ThreeState::As, ThreeState::Et] {
            assert_eq!(PcnMark::from(s).three_state(), Some(s));
        }
        assert_eq!(PcnMark::NotPcn.three_state(), None);
    }

    /// RFC 6660 s5.2.1: the forbidden transitions, for every (state, indication).
    #[test]
    fn remark_transitions_are_the_allowed_ones() {
        for from in ALL {
            for ind in ALL {
                let to = from.remark(ind);
                match from {
                    PcnMark::NotPcn => assert_eq!(to, PcnMark::NotPcn),
                    PcnMark::Nm => assert_ne!(to, PcnMark::NotPcn),
                    PcnMark::Thm => assert!(matches!(to, PcnMark::Thm | PcnMark::Etm)),
                    PcnMark::Etm => assert_eq!(to, PcnMark::Etm),
                }
                if from.is_pcn() {
                    assert_eq!(to.severity(), from.severity().max(ind.severity()));
                }
            }
        }
        // s5.2.2: NM -> ThM, NM -> ETM, ThM -> ETM.
        assert_eq!(PcnMark::Nm.remark(PcnMark::Thm), PcnMark::Thm);
        assert_eq!(PcnMark::Nm.remark(PcnMark::Etm), PcnMark::Etm);
        assert_eq!(PcnMark::Thm.remark(PcnMark::Etm), PcnMark::Etm);
        assert_eq!(PcnMark::Etm.remark(PcnMark::Thm), PcnMark::Etm);
    }

    /// Every TOS byte, every indication, with one and with two PCN DSCPs.
    #[test]
    fn tos_exhaustive() {
        for set in [
            PcnDscps::single(46),
            PcnDscps::single(46).with(34),
            PcnDscps::NONE,
        ] {
            // Under Miri, which interprets every instruction: the four ECN
            // codepoints of DSCPs 0, 34, 46 and 63 only.
            let dscps = [0, 34, 46, 63];
            for tos in (0..=255u8).filter(|tos| !cfg!(miri) || dscps.contains(&(tos >> 2))) {
                let pcn = set.contains(tos >> 2);
                let decoded = set.decode_tos(tos);
                assert_eq!(decoded.is_some(), pcn);
                for ind in ALL {
                    let out = set.remark_tos(tos, ind);
                    // The DSCP never changes.
                    assert_eq!(out >> 2, tos >> 2);
                    if !pcn {
                        assert_eq!(out, tos);
                        continue;
                    }
                    let before = PcnMark::from_ecn(tos);
                    let after = PcnMark::from_ecn(out);
                    if before == PcnMark::NotPcn {
                        assert_eq!(out, tos, "not-PCN untouched");
                    } else {
                        assert!(after.is_pcn());
                        assert!(after.severity() >= before.severity(), "severity only rises");
                        assert_eq!(after.severity(), before.severity().max(ind.severity()));
                    }
                    // Idempotent: re-marking again changes nothing.
                    assert_eq!(set.remark_tos(out, ind), out);
                    // The bare-ECN form agrees with the TOS form.
                    assert_eq!(remark_ecn(tos & 3, ind), out & 3);
                }
            }
        }
        assert!(!PcnDscps::NONE.with(64).contains(64));
        assert_eq!(PcnDscps::single(46).mask(), 1 << 46);
    }
}

//! The length a meter or shaper charges for a packet, as Linux's `tc` counts
//! it: a per-packet overhead, a minimum unit, and ATM cell accounting.

/// How the bytes a packet is charged differ from its length: Linux `tc`'s
/// `overhead`, `mpu` and `linklayer atm` knobs (the rate tables of `tc
/// police`, `tbf` and `htb`), in the order the kernel applies them.
///
/// - `overhead`: bytes added to every packet, negative to take some off (link
///   headers the length passed in does not include, or does and should not).
/// - `mpu`: the minimum packet unit; a packet is charged at least this many
///   bytes after the overhead (a link's minimum frame).
/// - `atm`: the result is carried in ATM cells, 48 bytes of payload in 53
///   bytes on the wire: `ceil(n / 48) x 53`.
///
/// So the bytes charged are `max(len + overhead, mpu, 0)`, then, with `atm`,
/// `ceil(that / 48) x 53`. Exact: integer arithmetic in 64 bits for every
/// `u32` length and `i32` overhead; a result beyond `u32::MAX` is charged
/// `u32::MAX` (reached only by a length within 2^31 of `u32::MAX` with a
/// positive overhead, or within about 2^28 of it with `atm`).
///
/// A meter's caller applies it to the length it passes in, so a meter that
/// does not use it costs nothing:
///
/// ```
/// use netcond_core::LengthAdjust;
///
/// // ADSL with PPPoA over LLC: tc's `overhead 10 linklayer atm`.
/// let adsl = LengthAdjust::NONE.with_overhead(10).with_atm(true);
/// assert_eq!(adsl.apply(1500), 1696); // 1510 bytes are 32 cells of 53 bytes
/// assert_eq!(adsl.apply(40), 106); // 50 bytes need 2 cells
/// // Ethernet's preamble, start delimiter and gap (20 bytes) and its
/// // 64-byte minimum frame, for lengths that include the MAC header and FCS.
/// let eth = LengthAdjust::NONE.with_overhead(20).with_mpu(84);
/// assert_eq!(eth.apply(60), 84);
/// assert_eq!(eth.apply(1514), 1534);
/// assert_eq!(LengthAdjust::NONE.apply(1500), 1500);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LengthAdjust {
    /// Bytes added to every packet (tc's `overhead`), possibly negative.
    pub overhead: i32,
    /// The least a packet is charged after the overhead (tc's `mpu`).
    pub mpu: u32,
    /// Charge in ATM cells (tc's `linklayer atm`).
    pub atm: bool,
}

impl LengthAdjust {
    /// Packets charged their length as it is.
    pub const NONE: LengthAdjust = LengthAdjust {
        overhead: 0,
        mpu: 0,
        atm: false,
    };

    /// This adjustment with `overhead` bytes per packet.
    #[must_use]
    pub const fn with_overhead(self, overhead: i32) -> LengthAdjust {
        LengthAdjust { overhead, ..self }
    }

    /// This adjustment with a minimum unit of `mpu` bytes.
    #[must_use]
    pub const fn with_mpu(self, mpu: u32) -> LengthAdjust {
        LengthAdjust { mpu, ..self }
    }

    /// This adjustment charging in ATM cells, or not.
    #[must_use]
    pub const fn with_atm(self, atm: bool) -> LengthAdjust {
        LengthAdjust { atm, ..self }
    }

    /// True when [`apply`](Self::apply) returns every length unchanged.
    #[must_use]
    pub const fn is_none(&self) -> bool {
        self.overhead == 0 && self.mpu == 0 && !self.atm
    }

    /// The bytes a packet of `len` bytes is charged.
    #[inline]
    #[must_use]
    pub const fn apply(&self, len: u32) -> u32 {
        let mut n = len as i64 + self.overhead as i64;
        if n < self.mpu as i64 {
            n = self.mpu as i64;
        }
        // n >= 0 here: mpu is unsigned.
        let mut n = n as u64;
        if self.atm {
            n = n.div_ceil(48) * 53;
        }
        if n > u32::MAX as u64 {
            u32::MAX
        } else {
            n as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combination against the rule written out in i128.
    #[test]
    fn apply_is_the_rule() {
        let lens = [
            0u32,
            1,
            39,
            40,
            47,
            48,
            49,
            95,
            96,
            97,
            1500,
            u32::MAX - 100,
            u32::MAX,
        ];
        let overheads = [i32::MIN, -1500, -48, -1, 0, 1, 10, 48, 4000, i32::MAX];
        let mpus = [0u32, 1, 48, 64, 84, 1000, u32::MAX];
        for &len in &lens {
            for &overhead in &overheads {
                for &mpu in &mpus {
                    for atm in [false, true] {
                        let a = LengthAdjust { overhead, mpu, atm };
                        let n = (i128::from(len) + i128::from(overhead))
                            .max(i128::from(mpu))
                            .max(0);
                        let n = if atm { (n + 47) / 48 * 53 } else { n };
                        let want = n.min(i128::from(u32::MAX)) as u32;
                        assert_eq!(a.apply(len), want, "{a:?} {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn none_changes_nothing() {
        assert!(LengthAdjust::NONE.is_none());
        assert_eq!(LengthAdjust::default(), LengthAdjust::NONE);
        for len in [0, 1, 64, 1500, u32::MAX] {
            assert_eq!(LengthAdjust::NONE.apply(len), len);
        }
        assert!(!LengthAdjust::NONE.with_mpu(1).is_none());
        assert!(!LengthAdjust::NONE.with_atm(true).is_none());
        assert!(!LengthAdjust::NONE.with_overhead(-1).is_none());
    }

    #[test]
    fn atm_cells() {
        let atm = LengthAdjust::NONE.with_atm(true);
        assert_eq!(atm.apply(0), 0);
        assert_eq!(atm.apply(1), 53);
        assert_eq!(atm.apply(48), 53);
        assert_eq!(atm.apply(49), 106);
        // The largest length whose cells still fit a u32, and the next.
        let cells = u64::from(u32::MAX) / 53;
        let fits = (cells * 48) as u32;
        assert_eq!(u64::from(atm.apply(fits)), cells * 53);
        assert_eq!(atm.apply(fits + 1), u32::MAX);
        // A negative overhead below zero is charged zero (or the mpu).
        assert_eq!(LengthAdjust::NONE.with_overhead(-100).apply(40), 0);
        assert_eq!(
            LengthAdjust::NONE
                .with_overhead(-100)
                .with_mpu(64)
                .apply(40),
            64
        );
    }
}

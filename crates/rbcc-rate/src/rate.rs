//! Fixed-point rates and the congestion fields that RBCC packets carry.

use netcond_core::Rate;

/// Number of fractional bits of [`FixedRate`].
pub const FRAC_BITS: u32 = 16;

/// One bit per second in [`FixedRate`] units (2^16).
pub const ONE_BPS: u64 = 1 << FRAC_BITS;

/// A rate in bits per second as unsigned Q48.16 fixed point: the raw value is
/// bits per second times 2^16.
///
/// The resolution is 2^-16 bit/s (about 1.5e-5 bit/s) and the range reaches
/// 2^48 bit/s (about 281 Tbit/s), so a rate such as 2400000/77 bit/s of Toomey's RBCC report's
/// Scenario 7 is held to within one unit of its exact value. The all-ones value
/// [`FixedRate::UNLIMITED`] means "no limit" (a source asking for as much as the
/// network gives). Arithmetic on the per-packet path is comparison only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FixedRate(u64);

impl FixedRate {
    /// The zero rate.
    pub const ZERO: FixedRate = FixedRate(0);
    /// No limit: the largest representable rate.
    pub const UNLIMITED: FixedRate = FixedRate(u64::MAX);

    /// The rate whose raw Q48.16 value is `raw`.
    #[inline]
    #[must_use]
    pub const fn from_raw(raw: u64) -> FixedRate {
        FixedRate(raw)
    }

    /// The raw Q48.16 value (bits per second times 2^16).
    #[inline]
    #[must_use]
    pub const fn raw(self) -> u64 {
        self.0
    }

    /// `bps` whole bits per second (saturating at [`FixedRate::UNLIMITED`]).
    #[inline]
    #[must_use]
    pub const fn from_bps(bps: u64) -> FixedRate {
        if bps >= (1 << (64 - FRAC_BITS)) {
            FixedRate::UNLIMITED
        } else {
            FixedRate(bps << FRAC_BITS)
        }
    }

    /// A [`Rate`] of the core crate, converted exactly (saturating).
    #[inline]
    #[must_use]
    pub const fn from_rate(rate: Rate) -> FixedRate {
        FixedRate::from_bps(rate.bits_per_sec())
    }

    /// `num / den` bits per second, rounded down to the resolution (saturating;
    /// a zero `den` gives [`FixedRate::UNLIMITED`]).
    #[must_use]
    pub const fn from_ratio(num: u64, den: u64) -> FixedRate {
        if den == 0 {
            return FixedRate::UNLIMITED;
        }
        let q = ((num as u128) << FRAC_BITS) / (den as u128);
        if q > u64::MAX as u128 {
            FixedRate::UNLIMITED
        } else {
            FixedRate(q as u64)
        }
    }

    /// Whole bits per second, rounded down.
    #[inline]
    #[must_use]
    pub const fn bps(self) -> u64 {
        self.0 >> FRAC_BITS
    }

    /// The rate in millibits per second, rounded to nearest (for reports).
    #[must_use]
    pub const fn millibits(self) -> u64 {
        (((self.0 as u128) * 1000 + (ONE_BPS as u128 / 2)) >> FRAC_BITS) as u64
    }

    /// True for [`FixedRate::UNLIMITED`].
    #[inline]
    #[must_use]
    pub const fn is_unlimited(self) -> bool {
        self.0 == u64::MAX
    }

    /// The smaller of two rates.
    #[inline]
    #[must_use]
    pub const fn min(self, other: FixedRate) -> FixedRate {
        if self.0 <= other.0 {
            self
        } else {
            other
        }
    }
}

impl core::fmt::Display for FixedRate {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.is_unlimited() {
            return f.write_str("unlimited");
        }
        // Three decimals, rounded to nearest.
        let m = self.millibits();
        write!(f, "{}.{:03} bit/s", m / 1000, m % 1000)
    }
}

/// The identifier a router stamps into a packet's bottleneck field.
///
/// [`NodeId::NONE`] (zero) means "no router lowered the rate". Give every output
/// interface that may be a bottleneck its own id (for example `router << 8 | port`)
/// so that a returned bottleneck id names one allocation table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NodeId(pub u32);

impl NodeId {
    /// No bottleneck recorded.
    pub const NONE: NodeId = NodeId(0);
}

/// A flow identifier, unique among the flows crossing one interface.
pub type FlowId = u32;

/// The congestion fields of a TRUMP data packet.
///
/// The source sets `requested` to the rate it asks for and `rate` to the same
/// value, with `bottleneck` = [`NodeId::NONE`]. Each router on the path lowers
/// `rate` to its advertised rate when that is smaller, and then writes its id into
/// `bottleneck`. The destination copies `rate` and `bottleneck` into the
/// acknowledgement ([`AckHeader`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RateHeader {
    /// Requested rate: what the source asks for; routers never change it.
    pub requested: FixedRate,
    /// Rate field: lowered by each router to its allocation.
    pub rate: FixedRate,
    /// The router that last lowered `rate`.
    pub bottleneck: NodeId,
}

impl RateHeader {
    /// The header a source sends: rate field = requested rate, no bottleneck.
    #[inline]
    #[must_use]
    pub const fn new(requested: FixedRate) -> RateHeader {
        RateHeader {
            requested,
            rate: requested,
            bottleneck: NodeId::NONE,
        }
    }

    /// The acknowledgement a destination returns for this packet.
    #[inline]
    #[must_use]
    pub const fn ack(&self) -> AckHeader {
        AckHeader {
            rate: self.rate,
            bottleneck: self.bottleneck,
        }
    }
}

/// The congestion fields of a TRUMP acknowledgement: the returned rate and the
/// bottleneck router, copied from the data packet by the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AckHeader {
    /// Return rate: the rate the source is to send at.
    pub rate: FixedRate,
    /// Return bottleneck: the router that set it.
    pub bottleneck: NodeId,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_and_display() {
        assert_eq!(FixedRate::from_bps(64_000).bps(), 64_000);
        assert_eq!(
            FixedRate::from_rate(Rate::from_kbps(64)).raw(),
            64_000 << 16
        );
        let r = FixedRate::from_ratio(2_400_000, 77);
        // floor(2400000 * 65536 / 77)
        assert_eq!(r.raw(), 2_042_680_519);
        assert_eq!(r.to_string(), "31168.831 bit/s");
        assert_eq!(FixedRate::from_bps(u64::MAX), FixedRate::UNLIMITED);
        assert_eq!(FixedRate::from_ratio(1, 0), FixedRate::UNLIMITED);
        assert_eq!(FixedRate::UNLIMITED.to_string(), "unlimited");
        assert_eq!(FixedRate::from_bps(3).min(FixedRate::from_bps(2)).bps(), 2);
        let h = RateHeader::new(FixedRate::from_bps(5));
        assert_eq!(h.ack().rate, h.rate);
        assert_eq!(h.ack().bottleneck, NodeId::NONE);
    }
}

//! Packet and byte counters per color.

use netcond_core::Color;

use crate::PolicerVerdict;

/// Green, yellow and red packets and bytes, and the packets and bytes a
/// policer dropped. Counts saturate at `u64::MAX`. `Copy`, 64 bytes.
///
/// The markers fill them through their `..._counted` methods
/// ([`SrTcm::color_blind_counted`](crate::SrTcm::color_blind_counted), ...),
/// which color exactly as the plain methods do and then [`record`](Self::record)
/// the packet; a caller that keeps no counters calls the plain methods and
/// pays nothing. The premium policer's
/// [`offer_counted`](crate::PremiumPolicer::offer_counted) records a packet
/// by its conformance (green if it conformed, red if not) and counts it as
/// dropped too when it was not admitted ([`record_verdict`](Self::record_verdict)).
/// Bytes are the lengths the caller passed, in packet mode too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Counters {
    /// Packets per color, indexed by [`Color::index`].
    pub packets: [u64; 3],
    /// Bytes per color, indexed by [`Color::index`].
    pub bytes: [u64; 3],
    /// Packets dropped (the policer's policer and buffer drops).
    pub dropped_packets: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
}

impl Counters {
    /// Counts one packet of `len` bytes colored `color`.
    #[inline]
    pub fn record(&mut self, color: Color, len: u32) {
        let i = color.index();
        self.packets[i] = self.packets[i].saturating_add(1);
        self.bytes[i] = self.bytes[i].saturating_add(u64::from(len));
    }

    /// Counts one packet of `len` bytes given verdict `v` by a policer:
    /// admitted and buffer drops are green (they conformed), policer drops
    /// red; both kinds of drop are counted in `dropped_*` too.
    #[inline]
    pub fn record_verdict(&mut self, v: PolicerVerdict, len: u32) {
        let color = match v {
            PolicerVerdict::PolicerDrop => Color::Red,
            PolicerVerdict::Admitted | PolicerVerdict::BufferDrop => Color::Green,
        };
        self.record(color, len);
        if v != PolicerVerdict::Admitted {
            self.dropped_packets = self.dropped_packets.saturating_add(1);
            self.dropped_bytes = self.dropped_bytes.saturating_add(u64::from(len));
        }
    }

    /// Packets colored `color`.
    #[inline]
    #[must_use]
    pub const fn packets(&self, color: Color) -> u64 {
        self.packets[color.index()]
    }

    /// Bytes colored `color`.
    #[inline]
    #[must_use]
    pub const fn bytes(&self, color: Color) -> u64 {
        self.bytes[color.index()]
    }

    /// All packets counted (saturating).
    #[must_use]
    pub const fn total_packets(&self) -> u64 {
        self.packets[0]
            .saturating_add(self.packets[1])
            .saturating_add(self.packets[2])
    }

    /// All bytes counted (saturating).
    #[must_use]
    pub const fn total_bytes(&self) -> u64 {
        self.bytes[0]
            .saturating_add(self.bytes[1])
            .saturating_add(self.bytes[2])
    }

    /// Adds another set of counters (saturating), e.g. to sum over flows.
    pub fn merge(&mut self, other: &Counters) {
        for i in 0..3 {
            self.packets[i] = self.packets[i].saturating_add(other.packets[i]);
            self.bytes[i] = self.bytes[i].saturating_add(other.bytes[i]);
        }
        self.dropped_packets = self.dropped_packets.saturating_add(other.dropped_packets);
        self.dropped_bytes = self.dropped_bytes.saturating_add(other.dropped_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_and_saturate() {
        let mut c = Counters::default();
        c.record(Color::Green, 100);
        c.record(Color::Red, 7);
        c.record(Color::Red, 3);
        assert_eq!(c.packets(Color::Green), 1);
        assert_eq!(c.packets(Color::Yellow), 0);
        assert_eq!((c.packets(Color::Red), c.bytes(Color::Red)), (2, 10));
        assert_eq!((c.total_packets(), c.total_bytes()), (3, 110));
        let mut d = c;
        d.merge(&c);
        assert_eq!(d.total_bytes(), 220);
        c.bytes[1] = u64::MAX - 1;
        c.record(Color::Yellow, 10);
        assert_eq!(c.bytes(Color::Yellow), u64::MAX);
        assert_eq!(c.total_bytes(), u64::MAX);
    }

    #[test]
    fn verdicts() {
        let mut c = Counters::default();
        c.record_verdict(PolicerVerdict::Admitted, 100);
        c.record_verdict(PolicerVerdict::PolicerDrop, 10);
        c.record_verdict(PolicerVerdict::BufferDrop, 1);
        assert_eq!(c.packets, [2, 0, 1]);
        assert_eq!(c.bytes, [101, 0, 10]);
        assert_eq!((c.dropped_packets, c.dropped_bytes), (2, 11));
        let mut d = c;
        d.merge(&c);
        assert_eq!((d.dropped_packets, d.dropped_bytes), (4, 22));
        assert_eq!(core::mem::size_of::<Counters>(), 64);
    }
}

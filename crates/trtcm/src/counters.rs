//! Packet and byte counters per color.

use netcond_core::Color;

/// Green, yellow and red packets and bytes. Counts saturate at `u64::MAX`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Counters {
    /// Packets per color, indexed by [`Color::index`].
    pub packets: [u64; 3],
    /// Bytes per color, indexed by [`Color::index`].
    pub bytes: [u64; 3],
}

impl Counters {
    /// Counts one packet of `len` bytes colored `color`.
    #[inline]
    pub fn record(&mut self, color: Color, len: u32) {
        let i = color.index();
        self.packets[i] = self.packets[i].saturating_add(1);
        self.bytes[i] = self.bytes[i].saturating_add(u64::from(len));
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
}

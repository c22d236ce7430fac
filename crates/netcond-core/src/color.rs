//! The three colors of the DiffServ markers.

/// The color a meter gives a packet (RFC 2697, RFC 2698, RFC 4115).
///
/// The order is severity: `Green < Yellow < Red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Color {
    /// Conforms to the committed rate and burst.
    #[default]
    Green = 0,
    /// Exceeds the committed profile but conforms to the excess/peak one.
    Yellow = 1,
    /// Exceeds both.
    Red = 2,
}

impl Color {
    /// All three colors, best first.
    pub const ALL: [Color; 3] = [Color::Green, Color::Yellow, Color::Red];

    /// The index 0, 1, 2 of the color, for counters indexed by color.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The color with index `i` (0 green, 1 yellow, anything else red).
    #[inline]
    #[must_use]
    pub const fn from_index(i: usize) -> Color {
        match i {
            0 => Color::Green,
            1 => Color::Yellow,
            _ => Color::Red,
        }
    }

    /// The more severe of two colors.
    #[inline]
    #[must_use]
    pub fn worst(self, other: Color) -> Color {
        if other > self {
            other
        } else {
            self
        }
    }
}

impl core::fmt::Display for Color {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Color::Green => "green",
            Color::Yellow => "yellow",
            Color::Red => "red",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_index() {
        assert!(Color::Green < Color::Yellow && Color::Yellow < Color::Red);
        for c in Color::ALL {
            assert_eq!(Color::from_index(c.index()), c);
        }
        assert_eq!(Color::from_index(7), Color::Red);
        assert_eq!(Color::Green.worst(Color::Yellow), Color::Yellow);
        assert_eq!(Color::Red.worst(Color::Green), Color::Red);
        assert_eq!(Color::Yellow.to_string(), "yellow");
    }
}

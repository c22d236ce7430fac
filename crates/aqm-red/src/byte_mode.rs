//! FJ93's byte mode: `p_b` scaled by the packet's size.

/// The scale of byte mode: `p * min(len, M) / M`, within one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteMode {
    /// M, the maximum packet size; 0 when byte mode is off.
    pub max_len: u32,
    /// ceil(2^64 / M).
    pub recip: u128,
}

impl ByteMode {
    pub(crate) const OFF: ByteMode = ByteMode {
        max_len: 0,
        recip: 0,
    };

    pub(crate) const fn new(max_len: u32) -> ByteMode {
        if max_len == 0 {
            return ByteMode::OFF;
        }
        let m = max_len as u128;
        ByteMode {
            max_len,
            recip: (1u128 << 64).div_ceil(m),
        }
    }

    /// FJ93 section 4, byte mode: `p_b * PacketSize / MaximumPacketSize`
    /// (sizes above M count as M). Exact at `len = M`; otherwise at most one
    /// unit above the floor of the exact value.
    #[inline(always)]
    pub(crate) const fn scale(&self, p: u64, len: u32) -> u64 {
        if self.max_len == 0 {
            return p;
        }
        let l = if len > self.max_len {
            self.max_len
        } else {
            len
        };
        // p <= 2^32, l < 2^32: p l < 2^64; times recip <= 2^64 / M + 1 stays below 2^128.
        (((p * l as u64) as u128 * self.recip) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ONE;

    #[test]
    fn byte_scale() {
        let b = ByteMode::new(1500);
        assert_eq!(b.scale(ONE, 1500), ONE);
        assert_eq!(b.scale(ONE, 9000), ONE);
        assert_eq!(b.scale(1 << 20, 750), 1 << 19);
        assert_eq!(b.scale(12345, 0), 0);
        let b = ByteMode::new(1);
        assert_eq!(b.scale(ONE, 1), ONE);
        assert_eq!(b.scale(ONE, u32::MAX), ONE);
        assert_eq!(ByteMode::OFF.scale(77, 5), 77);
    }
}

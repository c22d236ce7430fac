//! Byte mode and packet mode.

/// What a token stands for: a byte (the RFCs' meters) or a whole packet (DPDK's
/// `packet_mode` of `rte_mtr` profiles, tc police's `pkt_rate` / `pkt_burst`).
///
/// In [`Mode::Packets`] every packet costs one token whatever its length, the
/// rates of the configuration are packets per second and its bursts are
/// packets. The profile is built with the same exact bucket arithmetic as in
/// byte mode, with one packet in the place of one byte: a rate of `n` packets
/// per second is written `Rate::from_bytes_per_sec(n)` (the configurations'
/// `packets` constructors do that, and `rate.bytes_per_sec()` reads it back),
/// and a burst of `n` packets is `n`. So the exactness statement of byte mode
/// carries over word for word: over any interval whose timestamps are each
/// less than 2^63 ticks after the one before, a bucket hands out at most
/// `size + rate x time` packets, and exactly that, to within one packet, to a
/// stream that keeps it busy.
///
/// The markers' methods that take a length (`color_blind`, `color_aware`)
/// ignore it with a packet-mode profile and charge one packet (on the general
/// path, out of line: the byte path's fast-path flag is off in packet mode);
/// the `..._packet` methods (`color_blind_packet`, `color_aware_packet`) take
/// no length and are the fast way to meter in packet mode: the same fast path
/// as byte mode with a length of one unit. With a byte-mode profile they charge
/// one byte. The premium policer polices in packet mode with `offer_packet`;
/// its `offer` charges the `len` it is given (see `PremiumPolicer::offer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Mode {
    /// Tokens are bytes: rates in bits (or bytes) per second, bursts in bytes.
    #[default]
    Bytes,
    /// Tokens are packets: rates in packets per second (written as
    /// `Rate::from_bytes_per_sec(pps)`), bursts in packets.
    Packets,
}

impl Mode {
    /// `true` for [`Mode::Packets`].
    #[inline]
    #[must_use]
    pub const fn is_packets(self) -> bool {
        matches!(self, Mode::Packets)
    }
}
